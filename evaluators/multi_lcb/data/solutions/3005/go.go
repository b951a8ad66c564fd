package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func readLines() []string {
	data, _ := io.ReadAll(os.Stdin)
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

func parseIntList(line string) []int64 {
	inner := strings.TrimSpace(line[strings.Index(line, "[")+1 : strings.LastIndex(line, "]")])
	var out []int64
	if inner == "" {
		return out
	}
	for _, p := range strings.Split(inner, ",") {
		v, _ := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
		out = append(out, v)
	}
	return out
}

func parseString(line string) string {
	a, b := strings.Index(line, "\""), strings.LastIndex(line, "\"")
	if a < 0 || b <= a {
		return ""
	}
	return line[a+1 : b]
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func minDistance(a, b string) int {
	n, m := len(a), len(b)
	prev := make([]int, m+1)
	cur := make([]int, m+1)
	for j := 0; j <= m; j++ {
		prev[j] = j
	}
	for i := 1; i <= n; i++ {
		cur[0] = i
		for j := 1; j <= m; j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1]
			} else {
				cur[j] = 1 + minInt(prev[j-1], minInt(prev[j], cur[j-1]))
			}
		}
		prev, cur = cur, prev
	}
	return prev[m]
}

func main() {
	lines := readLines()
	fmt.Println(minDistance(parseString(lines[0]), parseString(lines[1])))
}
