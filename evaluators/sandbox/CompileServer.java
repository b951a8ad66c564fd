// A warm compiler: one JVM that keeps the Kotlin, Scala or Java compiler loaded and JIT-compiled, and runs
// one compile per request, so that a program does not pay the compiler's start-up (4-8 s cold on two
// cores) for each compile. It runs inside the sandbox like any compile (evaluators/sandbox/compilers.py
// starts it and owns its limits); this file only speaks the protocol and calls the compiler.
//
// Usage: java <the compiler's own JVM flags> -cp <the compiler's class path>:<this class's directory>
//            leaderboard.sandbox.CompileServer <the compiler's main class> <idle seconds>
//
// Protocol on stdin/stdout, frames of a 4-byte big-endian length and UTF-8 bytes:
//   request:  the compiler's arguments, separated by NUL characters
//   reply:    "<exit code>\n<what the compiler printed, at most OUTPUT_CAP bytes>", or "!\n<the stack
//             trace>" when the compiler threw (the caller then compiles cold)
// The server exits after a reply to a compile that threw an Error (out of memory, a stack overflow:
// its state is suspect), at end of input, and after <idle seconds> without a request.
package leaderboard.sandbox;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

public final class CompileServer {
    static final int OUTPUT_CAP = 64 * 1024;
    static final int REQUEST_CAP = 1 << 20;

    /** A stream that keeps the first OUTPUT_CAP bytes and drops the rest. */
    static final class Capped extends OutputStream {
        final ByteArrayOutputStream kept = new ByteArrayOutputStream();

        @Override
        public void write(int b) {
            if (kept.size() < OUTPUT_CAP) kept.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            int room = OUTPUT_CAP - kept.size();
            if (room > 0) kept.write(b, off, Math.min(room, len));
        }
    }

    interface Compiler {
        int compile(String[] args, PrintStream out) throws Exception;
    }

    /** Kotlin: K2JVMCompiler().exec(PrintStream, String...) returns an ExitCode. */
    static Compiler kotlin(String mainClass) throws ReflectiveOperationException {
        Class<?> cls = Class.forName(mainClass);
        Method exec = cls.getMethod("exec", PrintStream.class, String[].class);
        return (args, out) -> {
            Object code = exec.invoke(cls.getConstructor().newInstance(), out, args);
            return (Integer) code.getClass().getMethod("getCode").invoke(code);
        };
    }

    /** javac: com.sun.tools.javac.Main.compile(String[], PrintWriter) returns the exit code. */
    static Compiler javac(String mainClass) throws ReflectiveOperationException {
        Method compile = Class.forName(mainClass).getMethod("compile", String[].class, java.io.PrintWriter.class);
        return (args, out) -> {
            java.io.PrintWriter writer = new java.io.PrintWriter(out, true);
            int code = (Integer) compile.invoke(null, args, writer);
            writer.flush();
            return code;
        };
    }

    /** Scala 2: scala.tools.nsc.Main.process(String[]) returns whether it compiled; its reporter prints
     * to scala.Console's streams, which are pointed at the reply for the compile. */
    static Compiler scala(String mainClass) throws ReflectiveOperationException {
        Method process = Class.forName(mainClass).getMethod("process", String[].class);
        Class<?> console = Class.forName("scala.Console$");
        Object module = console.getField("MODULE$").get(null);
        Method setOut = console.getMethod("setOutDirect", PrintStream.class);
        Method setErr = console.getMethod("setErrDirect", PrintStream.class);
        return (args, out) -> {
            setOut.invoke(module, out);
            setErr.invoke(module, out);
            try {
                return (Boolean) process.invoke(null, (Object) args) ? 0 : 1;
            } finally {
                setOut.invoke(module, System.out);
                setErr.invoke(module, System.err);
            }
        };
    }

    public static void main(String[] argv) throws Exception {
        String mainClass = argv[0];
        long idleMillis = Long.parseLong(argv[1]) * 1000L;
        // The compiler sees only its own class path (scalac's -usejavacp reads this property), not
        // this server's directory.
        String cp = System.getProperty("java.class.path");
        System.setProperty("java.class.path", cp.substring(0, Math.max(0, cp.lastIndexOf(':'))));
        Compiler compiler = mainClass.startsWith("scala.") ? scala(mainClass)
                : mainClass.equals("com.sun.tools.javac.Main") ? javac(mainClass) : kotlin(mainClass);

        DataInputStream in = new DataInputStream(System.in);
        DataOutputStream reply = new DataOutputStream(new java.io.FileOutputStream(java.io.FileDescriptor.out));
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(quiet);  // nothing but replies ever reaches the real stdout
        AtomicLong lastRequest = new AtomicLong(System.nanoTime());
        Thread idle = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
                long since = System.nanoTime() - lastRequest.get();
                if (since > idleMillis * 1_000_000L && lastRequest.get() != 0) Runtime.getRuntime().halt(0);
            }
        });
        idle.setDaemon(true);
        idle.start();

        while (true) {
            int length;
            try {
                length = in.readInt();
            } catch (EOFException e) {
                return;
            }
            if (length < 0 || length > REQUEST_CAP) throw new IOException("request of " + length + " bytes");
            byte[] body = new byte[length];
            in.readFully(body);
            lastRequest.set(0);  // busy: the idle timer waits
            String[] args = new String(body, StandardCharsets.UTF_8).split("\0", -1);
            Capped captured = new Capped();
            PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);
            String code;
            boolean fatal = false;
            System.setErr(out);
            try {
                code = Integer.toString(compiler.compile(args, out));
            } catch (Throwable t) {
                Throwable cause = t instanceof InvocationTargetException && t.getCause() != null ? t.getCause() : t;
                cause.printStackTrace(out);
                code = "!";
                fatal = cause instanceof Error;
            } finally {
                System.setErr(quiet);
            }
            out.flush();
            byte[] head = (code + "\n").getBytes(StandardCharsets.UTF_8);
            byte[] text = captured.kept.toByteArray();
            byte[] frame = Arrays.copyOf(head, head.length + text.length);
            System.arraycopy(text, 0, frame, head.length, text.length);
            reply.writeInt(frame.length);
            reply.write(frame);
            reply.flush();
            if (fatal) Runtime.getRuntime().halt(4);
            lastRequest.set(System.nanoTime());
        }
    }
}
