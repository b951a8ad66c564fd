#include <cstdio>
#include <iostream>
#include <string>

int main() {
    long long a, b;
    std::cin >> a >> b;
    std::string line(1000, '7');
    line += '\n';
    while (true) {  // endless output; stops only when killed or stdout is closed
        if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size()) return 1;
    }
}
