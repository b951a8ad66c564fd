import json
import sys
from typing import List


class Solution:
    def maxSubArray(self, nums: List[int]) -> int:
        best = nums[0]
        cur = 0
        for x in nums:
            cur = x if cur < 0 else cur + x
            if cur > best:
                best = cur
        return best


def main() -> None:
    lines = [line for line in sys.stdin.read().split("\n") if line.strip()]
    nums = json.loads(lines[0])
    print(json.dumps(Solution().maxSubArray(nums)))


main()
