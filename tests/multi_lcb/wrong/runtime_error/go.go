package main

import "fmt"

func main() {
	var a, b int64
	fmt.Scan(&a, &b)
	zero := a - a
	fmt.Println((a + b) / zero) // runtime panic: integer divide by zero (exit code 2)
}
