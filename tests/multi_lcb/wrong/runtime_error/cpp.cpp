#include <iostream>

int main() {
    long long a, b;
    std::cin >> a >> b;
    std::cout << a + b << std::endl;  // the right answer...
    return 3;                         // ...but a non-zero exit code: runtime error
}
