package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func main() {
	var a, b int64
	fmt.Scan(&a, &b)
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	line := strings.Repeat("7", 1000) + "\n"
	for { // endless output; stops only when killed or stdout is closed
		if _, err := w.WriteString(line); err != nil {
			os.Exit(1)
		}
	}
}
