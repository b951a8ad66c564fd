import sys
from collections import deque


def main() -> None:
    data = sys.stdin.buffer.read().split()
    h, w = int(data[0]), int(data[1])
    grid = b"".join(data[2:2 + h])
    total = h * w
    if grid[0] != 46 or grid[total - 1] != 46:
        print(-1)
        return
    dist = [-1] * total
    dist[0] = 0
    queue = deque([0])
    while queue:
        cur = queue.popleft()
        if cur == total - 1:
            break
        d = dist[cur] + 1
        r, c = divmod(cur, w)
        if r > 0:
            nxt = cur - w
            if dist[nxt] < 0 and grid[nxt] == 46:
                dist[nxt] = d
                queue.append(nxt)
        if r + 1 < h:
            nxt = cur + w
            if dist[nxt] < 0 and grid[nxt] == 46:
                dist[nxt] = d
                queue.append(nxt)
        if c > 0:
            nxt = cur - 1
            if dist[nxt] < 0 and grid[nxt] == 46:
                dist[nxt] = d
                queue.append(nxt)
        if c + 1 < w:
            nxt = cur + 1
            if dist[nxt] < 0 and grid[nxt] == 46:
                dist[nxt] = d
                queue.append(nxt)
    print(dist[total - 1])


main()
