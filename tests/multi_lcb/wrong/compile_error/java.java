import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        long a = sc.nextLong(), b = sc.nextLong();
        int sum = "not a number"; // incompatible types: String cannot be converted to int
        System.out.println(sum);
    }
}
