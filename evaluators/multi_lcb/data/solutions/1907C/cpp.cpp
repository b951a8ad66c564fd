#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, amount;
    cin >> n >> amount;
    vector<int> coins(n);
    for (auto& c : coins) cin >> c;
    const int INF = INT_MAX / 2;
    vector<int> dp(amount + 1, INF);
    dp[0] = 0;
    for (int c : coins)
        for (int a = c; a <= amount; a++) dp[a] = min(dp[a], dp[a - c] + 1);
    cout << (dp[amount] >= INF ? -1 : dp[amount]) << "\n";
    return 0;
}
