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
    bool isPalindrome(const string& s) {
        return equal(s.begin(), s.end(), s.rbegin());
    }
};

int main() {
    vector<string> lines = nonEmptyLines(readAll());
    string s = parseString(lines[0]);
    cout << (Solution().isPalindrome(s) ? "true" : "false") << "\n";
    return 0;
}
