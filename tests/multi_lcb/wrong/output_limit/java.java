import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.Scanner;

public class Main {
    public static void main(String[] args) throws IOException {
        Scanner sc = new Scanner(System.in);
        long a = sc.nextLong(), b = sc.nextLong();
        // a raw stream (not System.out, which swallows errors) so a closed pipe ends the program
        BufferedOutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        byte[] line = ("7".repeat(1000) + "\n").getBytes();
        while (true) {
            out.write(line);
        }
    }
}
