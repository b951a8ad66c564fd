import json
import sys


class Solution:
    def isValid(self, s: str) -> bool:
        pairs = {")": "(", "]": "[", "}": "{"}
        stack = []
        for ch in s:
            if ch in pairs:
                if not stack or stack.pop() != pairs[ch]:
                    return False
            else:
                stack.append(ch)
        return not stack


def main() -> None:
    lines = [line for line in sys.stdin.read().split("\n") if line.strip()]
    s = json.loads(lines[0])
    print(json.dumps(Solution().isValid(s)))


main()
