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
	h, w := int(readInt()), int(readInt())
	g := make([]string, h)
	for i := range g {
		g[i] = readWord()
	}
	if g[0][0] != '.' || g[h-1][w-1] != '.' {
		fmt.Println(-1)
		return
	}
	dist := make([]int, h*w)
	for i := range dist {
		dist[i] = -1
	}
	queue := make([]int, 0, h*w)
	dist[0] = 0
	queue = append(queue, 0)
	dr := []int{1, -1, 0, 0}
	dc := []int{0, 0, 1, -1}
	for head := 0; head < len(queue); head++ {
		cur := queue[head]
		r, c := cur/w, cur%w
		for k := 0; k < 4; k++ {
			nr, nc := r+dr[k], c+dc[k]
			if nr < 0 || nr >= h || nc < 0 || nc >= w || g[nr][nc] != '.' {
				continue
			}
			idx := nr*w + nc
			if dist[idx] >= 0 {
				continue
			}
			dist[idx] = dist[cur] + 1
			queue = append(queue, idx)
		}
	}
	fmt.Println(dist[h*w-1])
}
