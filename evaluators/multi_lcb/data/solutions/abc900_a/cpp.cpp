#include <bits/stdc++.h>
using namespace std;

int main() {
    long long a, b;
    if (!(cin >> a >> b)) return 0;
    cout << a + b << "\n";
    return 0;
}
