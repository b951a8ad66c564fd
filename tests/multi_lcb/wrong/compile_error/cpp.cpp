#include <iostream>
#include <string>

int main() {
    long long a, b;
    std::cin >> a >> b;
    int sum = std::string("not a number");  // type error: no conversion from std::string to int
    std::cout << sum << "\n";
    return 0;
}
