package golden

import (
	"fmt"
	"strings"
)

// maxCells bounds the work of the line diff; past it, the differing middle
// of the two texts is shown as removed and added whole.
const maxCells = 4 << 20

// LineDiff returns a line diff of want and got: lines only in want start with
// "-", lines only in got with "+", and up to two unchanged lines of context
// start with " ". Hunks are headed by "@@ want line N, got line M @@". It
// returns "" when the texts are equal.
func LineDiff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := splitLines(want), splitLines(got)
	// Common prefix and suffix.
	pre := 0
	for pre < len(w) && pre < len(g) && w[pre] == g[pre] {
		pre++
	}
	suf := 0
	for suf < len(w)-pre && suf < len(g)-pre && w[len(w)-1-suf] == g[len(g)-1-suf] {
		suf++
	}
	ops := make([]op, 0, len(w)+len(g))
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', w[i], i, i})
	}
	ops = append(ops, middle(w[pre:len(w)-suf], g[pre:len(g)-suf], pre)...)
	for i := 0; i < suf; i++ {
		wi, gi := len(w)-suf+i, len(g)-suf+i
		ops = append(ops, op{' ', w[wi], wi, gi})
	}
	return format(ops)
}

type op struct {
	kind   byte // ' ', '-', '+'
	line   string
	wi, gi int // line indexes in want and got (of the next line for the other side)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// middle diffs the differing middles by longest common subsequence.
func middle(w, g []string, offset int) []op {
	n, m := len(w), len(g)
	var ops []op
	if n*m > maxCells {
		for i, l := range w {
			ops = append(ops, op{'-', l, offset + i, offset})
		}
		for j, l := range g {
			ops = append(ops, op{'+', l, offset + n, offset + j})
		}
		return ops
	}
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if w[i] == g[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && w[i] == g[j]:
			ops = append(ops, op{' ', w[i], offset + i, offset + j})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', w[i], offset + i, offset + j})
			i++
		default:
			ops = append(ops, op{'+', g[j], offset + i, offset + j})
			j++
		}
	}
	return ops
}

// format prints the changed lines with two lines of context.
func format(ops []op) string {
	const context = 2
	var b strings.Builder
	last := -1 // index of the last op printed
	for k, o := range ops {
		if o.kind == ' ' {
			continue
		}
		start := max(k-context, last+1)
		if start > last+1 || last == -1 {
			fmt.Fprintf(&b, "@@ want line %d, got line %d @@\n", ops[start].wi+1, ops[start].gi+1)
		}
		for p := start; p <= k; p++ {
			if p > last {
				fmt.Fprintf(&b, "%c%s\n", ops[p].kind, ops[p].line)
			}
		}
		last = k
		// Trailing context, unless another change follows closely.
		for p := k + 1; p < len(ops) && p <= k+context && ops[p].kind == ' '; p++ {
			next := nextChange(ops, p)
			if next != -1 && next-p <= context {
				break
			}
			fmt.Fprintf(&b, " %s\n", ops[p].line)
			last = p
		}
	}
	return b.String()
}

func nextChange(ops []op, from int) int {
	for p := from; p < len(ops); p++ {
		if ops[p].kind != ' ' {
			return p
		}
	}
	return -1
}
