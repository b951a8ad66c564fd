import json
import sys


class Solution:
    def isPalindrome(self, s: str) -> bool:
        return s == s[::-1]


def main() -> None:
    lines = [line for line in sys.stdin.read().split("\n") if line.strip()]
    s = json.loads(lines[0])
    print(json.dumps(Solution().isPalindrome(s)))


main()
