#include <bits/stdc++.h>
using namespace std;

static string readAll() {
    stringstream ss;
    ss << cin.rdbuf();
    return ss.str();
}

static vector<string> nonEmptyLines(const string& text) {
    vector<string> out;
    string cur;
    istringstream ss(text);
    while (getline(ss, cur)) {
        size_t a = cur.find_first_not_of(" \t\r");
        if (a == string::npos) continue;
        size_t b = cur.find_last_not_of(" \t\r");
        out.push_back(cur.substr(a, b - a + 1));
    }
    return out;
}

static vector<long long> parseIntList(const string& line) {
    vector<long long> out;
    string inner = line.substr(line.find('[') + 1);
    inner = inner.substr(0, inner.rfind(']'));
    for (char& c : inner)
        if (c == ',') c = ' ';
    istringstream ss(inner);
    long long x;
    while (ss >> x) out.push_back(x);
    return out;
}

static string parseString(const string& line) {
    size_t a = line.find('"');
    size_t b = line.rfind('"');
    if (a == string::npos || b <= a) return "";
    return line.substr(a + 1, b - a - 1);
}

class Solution {
public:
    int minDistance(const string& a, const string& b) {
        int n = a.size(), m = b.size();
        vector<int> prev(m + 1), cur(m + 1);
        for (int j = 0; j <= m; j++) prev[j] = j;
        for (int i = 1; i <= n; i++) {
            cur[0] = i;
            for (int j = 1; j <= m; j++) {
                if (a[i - 1] == b[j - 1]) cur[j] = prev[j - 1];
                else cur[j] = 1 + min({prev[j - 1], prev[j], cur[j - 1]});
            }
            swap(prev, cur);
        }
        return prev[m];
    }
};

int main() {
    vector<string> lines = nonEmptyLines(readAll());
    string a = parseString(lines[0]);
    string b = parseString(lines[1]);
    cout << Solution().minDistance(a, b) << "\n";
    return 0;
}
