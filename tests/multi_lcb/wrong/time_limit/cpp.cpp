#include <iostream>

int main() {
    long long a, b;
    std::cin >> a >> b;
    volatile unsigned long long x = 0;  // volatile: the loop cannot be optimised away
    while (true) x = x + 1;
    std::cout << a + b << "\n";
    return 0;
}
