#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, cap;
    cin >> n >> cap;
    vector<long long> dp(cap + 1, 0);
    for (int i = 0; i < n; i++) {
        int w;
        long long v;
        cin >> w >> v;
        for (int c = cap; c >= w; c--) dp[c] = max(dp[c], dp[c - w] + v);
    }
    cout << dp[cap] << "\n";
    return 0;
}
