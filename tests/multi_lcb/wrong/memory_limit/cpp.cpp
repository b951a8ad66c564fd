#include <cstring>
#include <iostream>
#include <vector>

int main() {
    long long a, b;
    std::cin >> a >> b;
    const size_t chunk = 64u << 20;
    std::vector<char*> chunks;
    volatile char sink = 0;
    while (true) {
        char* p = new char[chunk];
        std::memset(p, 1, chunk);  // touch every page so the RSS grows
        chunks.push_back(p);
        sink = sink + p[chunks.size() % chunk];
    }
    std::cout << a + b << "\n";
    return 0;
}
