package main

import (
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/computer"
	dpes3 "github.com/dpe-tui/dpe-tui/dpe/s3"
)

// addS3Flags registers the flags of `serve --resolver s3` on fs, writing
// into o, and returns the check to run after parsing with the chosen
// --resolver. Credentials are deliberately not flags: they come from
// AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (AWS_REGION) and so never show
// in process listings. The endpoint defaults to DPE_TUI_S3_ENDPOINT, the
// variable the agent reads for s3:// URIs.
func addS3Flags(fs *pflag.FlagSet, o *computer.S3ResolverOptions) func(resolver string) error {
	fs.StringVar(&o.Endpoint, "s3-endpoint", "", "with --resolver s3: object store URL, http(s)://host[:port]")
	bindEnv(fs, "s3-endpoint", dpes3.EnvEndpoint)
	fs.StringVar(&o.Bucket, "s3-bucket", "", "with --resolver s3: bucket to upload documents to (must exist)")
	fs.StringVar(&o.Prefix, "s3-prefix", "", "with --resolver s3: prefix of every object key, e.g. dpe/")
	fs.DurationVar(&o.Expiry, "s3-expiry", computer.DefaultResolverTTL, "with --resolver s3: lifetime of a presigned URL (1s to 168h)")
	return func(resolver string) error {
		if resolver != "s3" {
			var set []string
			fs.Visit(func(f *pflag.Flag) {
				if strings.HasPrefix(f.Name, "s3-") {
					set = append(set, "--"+f.Name)
				}
			})
			if len(set) > 0 {
				return usageErrorf("%s need --resolver s3", strings.Join(set, ", "))
			}
			return nil
		}
		switch {
		case o.Endpoint == "":
			return usageErrorf("--resolver s3 needs --s3-endpoint URL (or %s)", dpes3.EnvEndpoint)
		case o.Bucket == "":
			return usageErrorf("--resolver s3 needs --s3-bucket NAME")
		case o.Expiry < time.Second || o.Expiry > computer.MaxS3Expiry:
			return usageErrorf("--s3-expiry must be between 1s and %s, not %s", computer.MaxS3Expiry, o.Expiry)
		}
		if _, _, err := dpes3.ParseEndpoint(o.Endpoint); err != nil {
			return usageErrorf("--s3-endpoint: %v", err)
		}
		return nil
	}
}
