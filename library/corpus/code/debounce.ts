// Debounce and throttle helpers for a search box. Sample corpus file.

export type Fn<A extends unknown[]> = (...args: A) => void;

export interface Debounced<A extends unknown[]> extends Fn<A> {
  cancel(): void;
  flush(): void;
}

/** Call fn once the caller has been quiet for `wait` milliseconds. */
export function debounce<A extends unknown[]>(fn: Fn<A>, wait: number): Debounced<A> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: A | undefined;

  const run = () => {
    timer = undefined;
    if (pending) {
      const args = pending;
      pending = undefined;
      fn(...args);
    }
  };

  const debounced = ((...args: A) => {
    pending = args;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(run, wait);
  }) as Debounced<A>;

  debounced.cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    pending = undefined;
  };
  debounced.flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    run();
  };
  return debounced;
}

/** Call fn at most once every `interval` milliseconds, keeping the last call. */
export function throttle<A extends unknown[]>(fn: Fn<A>, interval: number): Fn<A> {
  let last = 0;
  let trailing: A | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    const now = Date.now();
    const remaining = interval - (now - last);
    if (remaining <= 0) {
      last = now;
      fn(...args);
      return;
    }
    trailing = args;
    timer ??= setTimeout(() => {
      timer = undefined;
      last = Date.now();
      if (trailing) fn(...trailing);
      trailing = undefined;
    }, remaining);
  };
}

// Usage:
// const search = debounce((q: string) => console.log("searching", q), 250);
// input.addEventListener("input", (e) => search((e.target as HTMLInputElement).value));
