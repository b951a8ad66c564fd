package main

import "fmt"

func main() {
	var a, b int64
	fmt.Scan(&a, &b)
	var sum int64 = "not a number" // cannot use untyped string constant as int64 value
	fmt.Println(sum)
}
