package main

import "fmt"

func main() {
	const mod = 1000000007
	var n int
	fmt.Scan(&n)
	var a, b int64 = 0, 1
	for i := 0; i < n; i++ {
		a, b = b, (a+b)%mod
	}
	fmt.Println(a)
}
