import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        long a = sc.nextLong(), b = sc.nextLong();
        long zero = a - a;
        System.out.println((a + b) / zero); // ArithmeticException: / by zero
    }
}
