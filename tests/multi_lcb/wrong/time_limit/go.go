package main

import "fmt"

var sink uint64

func main() {
	var a, b int64
	fmt.Scan(&a, &b)
	for { // busy loop, never prints
		sink++
	}
}
