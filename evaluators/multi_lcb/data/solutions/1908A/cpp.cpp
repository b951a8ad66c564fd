#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<long long> a(n);
    for (auto& x : a) cin >> x;
    sort(a.begin(), a.end());
    long long hi = LLONG_MIN, lo = LLONG_MAX;
    for (int i = 0; i < n / 2; i++) {
        long long s = a[i] + a[n - 1 - i];
        hi = max(hi, s);
        lo = min(lo, s);
    }
    cout << hi - lo << "\n";
    return 0;
}
