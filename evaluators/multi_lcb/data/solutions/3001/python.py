import json
import sys
from typing import List


class Solution:
    def countPairs(self, nums: List[int], k: int) -> int:
        seen: dict = {}
        count = 0
        for x in nums:
            count += seen.get(k - x, 0)
            seen[x] = seen.get(x, 0) + 1
        return count


def main() -> None:
    lines = [line for line in sys.stdin.read().split("\n") if line.strip()]
    nums = json.loads(lines[0])
    k = json.loads(lines[1])
    print(json.dumps(Solution().countPairs(nums, k)))


main()
