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

func isValid(s string) bool {
	stack := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch ch {
		case '(', '[', '{':
			stack = append(stack, ch)
		default:
			var want byte = '{'
			if ch == ')' {
				want = '('
			} else if ch == ']' {
				want = '['
			}
			if len(stack) == 0 || stack[len(stack)-1] != want {
				return false
			}
			stack = stack[:len(stack)-1]
		}
	}
	return len(stack) == 0
}

func main() {
	lines := readLines()
	fmt.Println(isValid(parseString(lines[0])))
}
