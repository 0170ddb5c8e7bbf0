package textnorm

import "testing"

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"CI Uses Python": "ci uses python",
		"ＡＰＩ":            "api",
		"Straße":         "strasse",
		"ｶﾞ":             "ガ",
		"bad \xff byte":  "bad \ufffd byte",
		"老王喜欢简约风格":       "老王喜欢简约风格",
		"Ꭺ":              "ꭺ",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
		if got := Fold(Fold(in)); got != Fold(in) {
			t.Errorf("Fold is not idempotent on %q: %q then %q", in, Fold(in), got)
		}
	}
}

func TestTrimToWord(t *testing.T) {
	for in, want := range map[string]string{
		"  (go-sqlite3).": "go-sqlite3",
		"c++,":            "c++",
		"c#":              "c#",
		"+#":              "",
		"“老王”":            "老王",
		"e\u0301!":        "e\u0301",
	} {
		if got := TrimToWord(in); got != want {
			t.Errorf("TrimToWord(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzFold(f *testing.F) {
	for _, s := range []string{"CI Uses Python", "ＡＰＩ", "Straße", "Ꭺ", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := Fold(s)
		if Fold(once) != once {
			t.Errorf("Fold(%q) = %q is not a fixed point", s, once)
		}
		_ = TrimToWord(once)
	})
}
