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

func countPairs(nums []int64, k int64) int64 {
	seen := make(map[int64]int64)
	var count int64
	for _, x := range nums {
		count += seen[k-x]
		seen[x]++
	}
	return count
}

func main() {
	lines := readLines()
	nums := parseIntList(lines[0])
	k, _ := strconv.ParseInt(lines[1], 10, 64)
	fmt.Println(countPairs(nums, k))
}
