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
	n := int(readInt())
	tails := make([]int64, 0, n)
	for i := 0; i < n; i++ {
		x := readInt()
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if tails[mid] < x {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo == len(tails) {
			tails = append(tails, x)
		} else {
			tails[lo] = x
		}
	}
	fmt.Println(len(tails))
}
