//go:build !unix

package config

import "errors"

func mkfifo(string) error { return errors.New("not supported") }

// processAlive cannot be told without process signals; the test of a
// killed grandchild is for unix, where api_key_cmd runs sh.
func processAlive(int) bool { return false }

func killPID(int) error { return nil }
