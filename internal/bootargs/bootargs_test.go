package bootargs

import (
	"reflect"
	"strconv"
	"testing"
)

// decode is a reference implementation of the kernel's grammar, kept
// deliberately naive so that it is obviously correct.
func decode(t *testing.T, line string) []string {
	t.Helper()
	var tokens []string
	var cur []byte
	inToken, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"':
			quoted, inToken = !quoted, true
		case !quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			if inToken {
				tokens = append(tokens, string(cur))
				cur, inToken = nil, false
			}
		case c == '\\' && i+1 < len(line) && line[i+1] == '\\':
			cur, inToken = append(cur, '\\'), true
			i++
		case c == '\\' && i+3 < len(line) && line[i+1] == 'x':
			v, err := strconv.ParseUint(line[i+2:i+4], 16, 8)
			if err != nil {
				t.Fatalf("bad escape in %q", line)
			}
			cur, inToken = append(cur, byte(v)), true
			i += 3
		default:
			cur, inToken = append(cur, c), true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", line)
	}
	if inToken {
		tokens = append(tokens, string(cur))
	}
	return tokens
}

var tricky = []string{
	"plain", "", " ", "two words", `say "hi"`, `back\slash`, `\\`, `\x41`,
	"tab\there", "new\nline", "\x7f\x01", "héllo, 世界", "--", "-v",
	"\xff\xfe not utf-8", `"`, `""`, "a=b c", "trailing ",
}

func TestEncodeRoundTrip(t *testing.T) {
	for _, tok := range tricky {
		enc := Encode(tok)
		got := decode(t, enc)
		if len(got) != 1 || got[0] != tok {
			t.Errorf("Encode(%q) = %q, decodes to %q", tok, enc, got)
		}
	}
}

func TestEncodeLeavesSimpleTokensAlone(t *testing.T) {
	for _, tok := range []string{"hello", "KEY=value", "-flag=1", "日本"} {
		if got := Encode(tok); got != tok {
			t.Errorf("Encode(%q) = %q, want unchanged", tok, got)
		}
	}
}

func TestCmdlineLayout(t *testing.T) {
	c := Cmdline{
		Options: []string{"verbose", "sched=random"},
		Env:     []string{"GREETING=hello world", "EMPTY="},
		Raw:     " cores=2 ",
		Args:    tricky,
	}
	got := decode(t, c.String())
	want := append([]string{"verbose", "sched=random",
		"GREETING=hello world", "EMPTY=", "cores=2", "--"}, tricky...)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %q\nwant     %q", got, want)
	}
}

func TestCmdlineAlwaysHasSeparator(t *testing.T) {
	if got := (Cmdline{}).String(); got != "--" {
		t.Errorf("empty Cmdline = %q, want %q", got, "--")
	}
}
