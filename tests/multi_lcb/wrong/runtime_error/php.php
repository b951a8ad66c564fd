<?php
$t = preg_split('/\s+/', trim(stream_get_contents(STDIN)));
// Prints the correct answer, then throws an uncaught exception (exit status 255).
echo intval($t[0]) + intval($t[1]), "\n";
throw new RuntimeException('boom');
