package golden

import "testing"

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name, want, got, diff string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"changed line", "a\nb\nc\nd\ne\nf\n", "a\nb\nc\nX\ne\nf\n",
			"@@ want line 2, got line 2 @@\n b\n c\n-d\n+X\n e\n f\n"},
		{"added at end", "a\n", "a\nb\n", "@@ want line 1, got line 1 @@\n a\n+b\n"},
		{"removed at start", "a\nb\n", "b\n", "@@ want line 1, got line 1 @@\n-a\n b\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\nX\n3\n4\n5\n6\n7\nY\n9\n",
			"@@ want line 1, got line 1 @@\n 1\n-2\n+X\n 3\n 4\n@@ want line 6, got line 6 @@\n 6\n 7\n-8\n+Y\n 9\n"},
		{"close changes share a hunk", "1\n2\n3\n4\n", "X\n2\nY\n4\n",
			"@@ want line 1, got line 1 @@\n-1\n+X\n 2\n-3\n+Y\n 4\n"},
		{"empty want", "", "a\n", "@@ want line 1, got line 1 @@\n+a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LineDiff(tt.want, tt.got); got != tt.diff {
				t.Errorf("LineDiff:\n%s\nwant:\n%s", got, tt.diff)
			}
		})
	}
}
