package main

import (
	"bufio"
	"container/heap"
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

type item struct {
	d int64
	v int
}

type minHeap []item

func (h minHeap) Len() int            { return len(h) }
func (h minHeap) Less(i, j int) bool  { return h[i].d < h[j].d }
func (h minHeap) Swap(i, j int)       { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x interface{}) { *h = append(*h, x.(item)) }
func (h *minHeap) Pop() interface{} {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

func main() {
	n, m := int(readInt()), int(readInt())
	head := make([]int, n+1)
	for i := range head {
		head[i] = -1
	}
	next := make([]int, 2*m)
	to := make([]int, 2*m)
	wt := make([]int64, 2*m)
	e := 0
	for i := 0; i < m; i++ {
		u, v, w := int(readInt()), int(readInt()), readInt()
		to[e], wt[e], next[e], head[u] = v, w, head[u], e
		e++
		to[e], wt[e], next[e], head[v] = u, w, head[v], e
		e++
	}
	const inf = int64(1) << 62
	dist := make([]int64, n+1)
	for i := range dist {
		dist[i] = inf
	}
	dist[1] = 0
	h := &minHeap{{0, 1}}
	for h.Len() > 0 {
		top := heap.Pop(h).(item)
		if top.d > dist[top.v] {
			continue
		}
		for i := head[top.v]; i != -1; i = next[i] {
			nd := top.d + wt[i]
			if nd < dist[to[i]] {
				dist[to[i]] = nd
				heap.Push(h, item{nd, to[i]})
			}
		}
	}
	if dist[n] == inf {
		fmt.Println(-1)
	} else {
		fmt.Println(dist[n])
	}
}
