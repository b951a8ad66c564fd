#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int h, w;
    cin >> h >> w;
    vector<string> g(h);
    for (auto& row : g) cin >> row;
    if (g[0][0] != '.' || g[h - 1][w - 1] != '.') {
        cout << -1 << "\n";
        return 0;
    }
    vector<int> dist((size_t)h * w, -1);
    deque<int> q;
    dist[0] = 0;
    q.push_back(0);
    const int dr[4] = {1, -1, 0, 0};
    const int dc[4] = {0, 0, 1, -1};
    while (!q.empty()) {
        int cur = q.front();
        q.pop_front();
        int r = cur / w, c = cur % w;
        for (int k = 0; k < 4; k++) {
            int nr = r + dr[k], nc = c + dc[k];
            if (nr < 0 || nr >= h || nc < 0 || nc >= w) continue;
            if (g[nr][nc] != '.') continue;
            int idx = nr * w + nc;
            if (dist[idx] >= 0) continue;
            dist[idx] = dist[cur] + 1;
            q.push_back(idx);
        }
    }
    cout << dist[(size_t)h * w - 1] << "\n";
    return 0;
}
