"""A+B sources in all twelve languages, shared by the sandbox tests and the benchmark."""

from __future__ import annotations

A_PLUS_B: dict[str, str] = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "cpp": '#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n',
    "java": (
        "import java.util.*;\npublic class Main { public static void main(String[] x) {"
        " Scanner s = new Scanner(System.in); long a = s.nextLong(), b = s.nextLong();"
        " System.out.println(a + b); } }\n"
    ),
    "csharp": (
        "using System;\nclass P { static void Main() { var t = Console.ReadLine().Split(' ');"
        " Console.WriteLine(long.Parse(t[0]) + long.Parse(t[1])); } }\n"
    ),
    "go": ('package main\nimport "fmt"\nfunc main() { var a, b int64; fmt.Scan(&a, &b); fmt.Println(a + b) }\n'),
    "rust": (
        "use std::io::*;\nfn main() { let mut s = String::new(); stdin().read_to_string(&mut s).unwrap();"
        " let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();"
        ' println!("{}", v[0] + v[1]); }\n'
    ),
    "javascript": (
        "const t = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(t[0] + t[1]);\n"
    ),
    "typescript": (
        "import * as fs from 'fs';\nconst t: number[] = fs.readFileSync(0, 'utf8').trim()"
        ".split(/\\s+/).map(Number);\nconsole.log(t[0] + t[1]);\n"
    ),
    "ruby": "a, b = gets.split.map(&:to_i)\nputs a + b\n",
    "php": "<?php\n[$a, $b] = array_map('intval', explode(' ', trim(fgets(STDIN))));\necho $a + $b, \"\\n\";\n",
    "kotlin": 'fun main() {\n    val (a, b) = readLine()!!.trim().split(" ").map { it.toLong() }\n    println(a + '
    "b)\n}\n",
    "scala": (
        "object Main { def main(args: Array[String]): Unit = {"
        ' val Array(a, b) = scala.io.StdIn.readLine().trim.split(" ").map(_.toLong);'
        " println(a + b) } }\n"
    ),
}
