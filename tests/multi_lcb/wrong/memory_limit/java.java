import java.util.ArrayList;
import java.util.Arrays;
import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        long a = sc.nextLong(), b = sc.nextLong();
        ArrayList<int[]> chunks = new ArrayList<>();
        while (true) {
            int[] chunk = new int[16 << 20]; // 64 MB
            Arrays.fill(chunk, 1); // touch every page
            chunks.add(chunk);
        }
    }
}
