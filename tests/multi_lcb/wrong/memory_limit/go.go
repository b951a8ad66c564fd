package main

import "fmt"

func main() {
	var a, b int64
	fmt.Scan(&a, &b)
	var chunks [][]byte
	for {
		chunk := make([]byte, 64<<20)
		// write every byte (doubling copy runs at memmove speed) so the RSS really grows
		chunk[0] = 1
		for filled := 1; filled < len(chunk); filled *= 2 {
			copy(chunk[filled:], chunk[:filled])
		}
		chunks = append(chunks, chunk)
	}
}
