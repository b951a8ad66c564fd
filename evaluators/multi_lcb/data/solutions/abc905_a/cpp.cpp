#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<string> words(n);
    for (auto& w : words) cin >> w;
    sort(words.begin(), words.end());
    string out;
    for (auto& w : words) {
        out += w;
        out += '\n';
    }
    cout << out;
    return 0;
}
