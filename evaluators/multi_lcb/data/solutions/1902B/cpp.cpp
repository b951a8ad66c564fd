#include <bits/stdc++.h>
using namespace std;

int main() {
    const long long MOD = 1000000007LL;
    long long n;
    cin >> n;
    long long a = 0, b = 1;
    for (long long i = 0; i < n; i++) {
        long long c = (a + b) % MOD;
        a = b;
        b = c;
    }
    cout << a << "\n";
    return 0;
}
