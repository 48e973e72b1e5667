package protocol

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeJoinAck_Shapes(t *testing.T) {
	var je *JoinError
	var perr *Error
	var mal *MalformedAckError
	tests := []struct {
		name string
		args []any
		ok   func(error) bool
	}{
		{"SpecPairTrue", []any{true, nil}, func(e error) bool { return e == nil }},
		{"WrappedPair", []any{[]any{true, nil}}, func(e error) bool { return e == nil }},
		{"ObjectOK", []any{map[string]any{"success": true}}, func(e error) bool { return e == nil }},
		{"Refused", []any{false, "office o already has an agent"}, func(e error) bool {
			return errors.As(e, &je) && je.Office == "o" && strings.Contains(e.Error(), "already has an agent")
		}},
		{"ObjectRefused", []any{map[string]any{"ok": false, "message": "full"}}, func(e error) bool { return errors.As(e, &je) && je.Reason == "full" }},
		{"ErrorPayload", []any{map[string]any{"code": 4101.0, "message": "room full"}}, func(e error) bool { return errors.As(e, &perr) && perr.Code == 4101 }},
		{"Empty", nil, func(e error) bool { return errors.Is(e, ErrEmptyAck) }},
		{"Null", []any{nil}, func(e error) bool { return errors.Is(e, ErrEmptyAck) }},
		{"Number", []any{1.0}, func(e error) bool { return errors.As(e, &mal) && strings.Contains(mal.Reason, "a number") }},
		{"LongReasonBounded", []any{false, strings.Repeat("x\n", 1000)}, func(e error) bool {
			return errors.As(e, &je) && len([]rune(je.Reason)) <= 201 && !strings.Contains(e.Error(), "\n")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := DecodeJoinAck("o", tc.args); !tc.ok(err) {
				t.Fatalf("DecodeJoinAck(%v) = %v (%T)", tc.args, err, err)
			}
		})
	}
}

func TestDecodeJoinAck_Flat05RefusalsAreSentences(t *testing.T) {
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{map[string]any{"code": 4101.0, "message": "Room Full", "details": map[string]any{"office_id": "o", "role": "computer"}}},
			"join office o: office o already has a computer, and A2C-SMCP 0.5 allows one per office (4101)"},
		{[]any{map[string]any{"code": 4101.0, "message": "Room Full", "details": map[string]any{"role": "agent"}}},
			"join office o: office o already has an agent (4101)"},
		{[]any{map[string]any{"code": 4105.0, "message": "dup"}}, "join office o: office o already has a member of this name (4105)"},
	} {
		err := DecodeJoinAck("o", tc.args)
		var je *JoinError
		var perr *Error
		if !errors.As(err, &je) || !errors.As(err, &perr) || err.Error() != tc.want {
			t.Errorf("got %v (%T), want %q with the payload reachable", err, err, tc.want)
		}
	}
}
