package client

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func shaHex(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// blobPeer answers get_skill with a handle and get_blob in chunks of
// chunk bytes from data; mutate may change each answer.
func blobPeer(t *testing.T, data []byte, chunk int, mutate func(n int, ret map[string]any)) (*Client, *[]float64) {
	var offsets []float64
	n := 0
	c := fakeClient(t, func(ev string, p map[string]any) []any {
		switch ev {
		case protocol.EventGetSkill:
			return []any{map[string]any{"name": p["name"], "rel_path": "assets/logo.png", "mime_type": "image/png",
				"total_size": float64(len(data)), "sha256": shaHex(data), "blob_handle": "h1"}}
		case protocol.EventGetBlob:
			off := int(p["chunk_offset"].(float64))
			offsets = append(offsets, p["chunk_offset"].(float64))
			end := min(off+chunk, len(data))
			ret := map[string]any{"blob_handle": "h1", "mime_type": "image/png", "total_size": float64(len(data)),
				"sha256": shaHex(data), "chunk_offset": float64(off), "eof": end == len(data),
				"blob": base64.StdEncoding.EncodeToString(data[off:end])}
			if mutate != nil {
				mutate(n, ret)
			}
			n++
			return []any{ret}
		}
		return nil
	})
	return c, &offsets
}

func TestReadSkillFile_BlobPagedByChunkOffsetAndChecked(t *testing.T) {
	data := []byte(strings.Repeat("\x89PNG\x00\xff", 1000))
	c, offsets := blobPeer(t, data, 1024, nil)
	f, err := c.ReadSkillFile(context.Background(), "c1", "pdf-tools", "assets/logo.png", SkillFileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Data) != string(data) || !f.Blob || f.MimeType != "image/png" {
		t.Fatalf("got %d bytes blob=%v mime=%q", len(f.Data), f.Blob, f.MimeType)
	}
	if want := []float64{0, 1024, 2048, 3072, 4096, 5120}; len(*offsets) != len(want) {
		t.Errorf("offsets %v, want %v", *offsets, want)
	}
}

func TestReadSkillFile_BrokenTransfersAreBlobErrors(t *testing.T) {
	data := []byte(strings.Repeat("x", 3000))
	for name, tc := range map[string]struct {
		mutate func(n int, ret map[string]any)
		opt    SkillFileOptions
		want   string
	}{
		"over the budget": {opt: SkillFileOptions{MaxBytes: 100}, want: "over the budget of 100 bytes"},
		"bad sha256": {mutate: func(n int, r map[string]any) { r["sha256"] = shaHex([]byte("other")) },
			want: "do not match their sha256"},
		"corrupt bytes": {mutate: func(n int, r map[string]any) {
			if r["chunk_offset"] == 1024.0 { // every read: the one re-read does not help
				r["blob"] = base64.StdEncoding.EncodeToString([]byte(strings.Repeat("y", 1024)))
			}
		}, want: "do not match their sha256"},
		"wrong offset": {mutate: func(n int, r map[string]any) { r["chunk_offset"] = 7.0 }, want: "asked for offset 0, got a chunk at 7"},
		"size changes": {mutate: func(n int, r map[string]any) {
			if n%2 == 1 { // changes on the re-read too
				r["total_size"] = 5000.0
			}
		}, want: "changed between chunks"},
		"eof early": {mutate: func(n int, r map[string]any) { r["eof"] = true }, want: "eof is true at 1024 of 3000"},
		"past the end": {mutate: func(n int, r map[string]any) {
			r["blob"] = base64.StdEncoding.EncodeToString(make([]byte, 4000))
		}, want: "past total_size"},
		"empty chunk": {mutate: func(n int, r map[string]any) { r["blob"] = ""; r["eof"] = false }, want: "empty chunk"},
	} {
		t.Run(name, func(t *testing.T) {
			c, _ := blobPeer(t, data, 1024, tc.mutate)
			_, err := c.ReadSkillFile(context.Background(), "c1", "pdf-tools", "assets/logo.png", tc.opt)
			var be *BlobError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "skill pdf-tools file assets/logo.png on computer c1") {
				t.Fatalf("err = %v, want a *BlobError naming the file and %q", err, tc.want)
			}
		})
	}
}

func TestReadSkillFile_InlineBodyCheckedAndErrorsAreSentences(t *testing.T) {
	body := "# PDF tools\n"
	sum := shaHex([]byte(body))
	c := fakeClient(t, func(ev string, p map[string]any) []any {
		switch p["rel_path"] {
		case nil:
			return []any{map[string]any{"name": p["name"], "rel_path": "SKILL.md", "mime_type": "text/markdown",
				"total_size": float64(len(body)), "sha256": sum, "body": body}}
		case "bad.md":
			return []any{map[string]any{"name": p["name"], "rel_path": "bad.md", "mime_type": "text/markdown",
				"total_size": 3.0, "sha256": sum, "body": "abc"}}
		}
		return []any{map[string]any{"code": 4017.0, "message": "x", "details": map[string]any{"reason": "traversal", "rel_path": "/etc/secret"}}}
	})
	f, err := c.ReadSkillFile(context.Background(), "c1", "pdf-tools", "", SkillFileOptions{})
	if err != nil || string(f.Data) != body || f.RelPath != "SKILL.md" || f.Blob {
		t.Fatalf("%+v %v", f, err)
	}
	if _, err := c.ReadSkillFile(context.Background(), "c1", "pdf-tools", "bad.md", SkillFileOptions{}); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("a body that does not match its sha256: %v", err)
	}
	_, err = c.ReadSkillFile(context.Background(), "c1", "pdf-tools", "../x", SkillFileOptions{})
	var se *protocol.SkillError
	if !errors.As(err, &se) || err.Error() != "skill pdf-tools on computer c1: ../x is refused: a path with .. is not accepted (4017)" {
		t.Errorf("err = %v", err)
	}
}

func TestSkills_LenientAndBounded(t *testing.T) {
	c := fakeClient(t, func(ev string, p map[string]any) []any {
		return jsonArgs(t, `{"skills":[{"name":"a","source":"user","path":"/p","description":"d","tags":["x"]},
			{"name":"b","source":5,"description":"d2"},{"description":"no name"}]}`)
	})
	sk, err := c.Skills(context.Background(), "c1")
	if err != nil || len(sk) != 2 || sk[0].Name != "a" || sk[0].Tags[0] != "x" || sk[1].Name != "b" || sk[1].Description != "d2" {
		t.Fatalf("%+v %v", sk, err)
	}
}

// The server's NoAnswer (it routed the request; the computer acked with
// nothing) is the computer's fault; an empty ack is the server's.
func TestAck_EmptyAckAttribution(t *testing.T) {
	for _, tc := range []struct {
		ack  []any
		want string
	}{
		{[]any{map[string]any{"code": 404.0, "message": "computer c1 gave no answer to client:get_skills", "computer": "c1", "event": "client:get_skills"}},
			"computer c1 gave no answer to client:get_skills"},
		{nil, "skills of computer c1: the server did not route client:get_skills (it may not support it)"},
	} {
		c := fakeClient(t, func(string, map[string]any) []any { return tc.ack })
		_, err := c.Skills(context.Background(), "c1")
		if err == nil || err.Error() != tc.want {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
}
