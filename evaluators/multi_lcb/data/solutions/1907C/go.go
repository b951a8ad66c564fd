package main

import (
	"bufio"
	"fmt"
	"os"
)

var reader = bufio.NewReaderSize(os.Stdin, 1<<20)

func readInt() int64 {
	c, _ := reader.ReadByte()
	for c != '-' && (c < '0' || c > '9') {
		c, _ = reader.ReadByte()
	}
	neg := false
	if c == '-' {
		neg = true
		c, _ = reader.ReadByte()
	}
	var r int64
	for c >= '0' && c <= '9' {
		r = r*10 + int64(c-'0')
		var err error
		c, err = reader.ReadByte()
		if err != nil {
			break
		}
	}
	if neg {
		return -r
	}
	return r
}

func readWord() string {
	c, _ := reader.ReadByte()
	for c == ' ' || c == '\n' || c == '\r' || c == '\t' {
		c, _ = reader.ReadByte()
	}
	buf := make([]byte, 0, 16)
	for c != ' ' && c != '\n' && c != '\r' && c != '\t' {
		buf = append(buf, c)
		var err error
		c, err = reader.ReadByte()
		if err != nil {
			break
		}
	}
	return string(buf)
}

func main() {
	n, amount := int(readInt()), int(readInt())
	const inf = 1 << 30
	dp := make([]int, amount+1)
	for a := 1; a <= amount; a++ {
		dp[a] = inf
	}
	for i := 0; i < n; i++ {
		c := int(readInt())
		for a := c; a <= amount; a++ {
			if dp[a-c]+1 < dp[a] {
				dp[a] = dp[a-c] + 1
			}
		}
	}
	if dp[amount] >= inf {
		fmt.Println(-1)
	} else {
		fmt.Println(dp[amount])
	}
}
