#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    string line;
    getline(cin, line);
    istringstream ss(line);
    vector<string> words;
    string w;
    while (ss >> w) words.push_back(w);
    reverse(words.begin(), words.end());
    for (size_t i = 0; i < words.size(); i++) {
        if (i) cout << ' ';
        cout << words[i];
    }
    cout << "\n";
    return 0;
}
