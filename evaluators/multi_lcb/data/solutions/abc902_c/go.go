package main

import (
	"bufio"
	"os"
	"strconv"
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
	n, q := int(readInt()), int(readInt())
	prefix := make([]int64, n+1)
	for i := 0; i < n; i++ {
		prefix[i+1] = prefix[i] + readInt()
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	buf := make([]byte, 0, 24)
	for i := 0; i < q; i++ {
		l, r := readInt(), readInt()
		buf = strconv.AppendInt(buf[:0], prefix[r]-prefix[l-1], 10)
		buf = append(buf, '\n')
		w.Write(buf)
	}
}
