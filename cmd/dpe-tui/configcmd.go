package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/config"
)

// isConfigCmd: cmd is `config` or one of its subcommands.
func isConfigCmd(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Name() == "config" && c.HasParent() && !c.Parent().HasParent() {
			return true
		}
	}
	return false
}

// configPath is --config (or DPE_TUI_CONFIG), else the default path.
func (a *app) configPath() (string, error) {
	if a.g.ConfigFile != "" {
		return a.g.ConfigFile, nil
	}
	return config.DefaultPath()
}

func (a *app) configCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config path|show|edit",
		Short: "Show where the config file is, print it with secrets masked, or edit it",
		Long: "The config file ($XDG_CONFIG_HOME/dpe-tui/config.toml, or --config FILE) holds named\n" +
			"connection profiles as [profiles.NAME] tables; --profile NAME picks one. Flags beat\n" +
			"environment variables, which beat the profile, which beats the defaults.",
		Example: `  dpe-tui config path
  dpe-tui config show
  EDITOR=nano dpe-tui config edit`,
		Args: noArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:     "path",
		Short:   "Print the config file's path",
		Example: "  dpe-tui config path",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := a.configPath()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(a.stdout, p)
			return err
		},
	}, &cobra.Command{
		Use:     "show",
		Short:   "Print the profiles, with a literal api_key masked",
		Example: "  dpe-tui config show\n  dpe-tui --config ./team.toml config show",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := a.configPath()
			if err != nil {
				return err
			}
			f, err := loadConfig(p, a.g.ConfigFile != "")
			if err != nil {
				return err
			}
			return f.WriteMasked(a.stdout)
		},
	}, &cobra.Command{
		Use:     "edit",
		Short:   "Open the config file in $EDITOR (else vi), creating its directory",
		Example: "  dpe-tui config edit\n  EDITOR='code --wait' dpe-tui config edit",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := a.configPath()
			if err != nil {
				return err
			}
			return editConfig(a.ctx, p, a.stdin, a.stdout, a.stderr)
		},
	})
	return cmd
}

// editConfig runs $EDITOR (else vi) on path, creating its directory
// (private: the file may hold a key). EDITOR may carry arguments
// ("code --wait"), so it runs through sh with the path as "$1". The
// editor is the user's and waits for them: only ctx (the signal) ends it.
func editConfig(ctx context.Context, path string, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config edit: %w", err)
	}
	editor := strings.TrimSpace(os.Getenv("VISUAL"))
	if editor == "" {
		editor = strings.TrimSpace(os.Getenv("EDITOR"))
	}
	if editor == "" {
		editor = "vi"
	}
	c := exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, "dpe-tui-editor", path)
	c.Stdin, c.Stdout, c.Stderr = stdin, stdout, stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("config edit: editor %s: %w", editor, err)
	}
	// Say at once when the edit left the file malformed.
	if _, err := config.Load(path); err != nil {
		var pe *config.ParseError
		if errors.As(err, &pe) {
			return &usageError{msg: pe.Error(), err: pe}
		}
		return err
	}
	return nil
}
