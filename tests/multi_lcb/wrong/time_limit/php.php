<?php
$t = preg_split('/\s+/', trim(stream_get_contents(STDIN)));
$x = 0;
while (true) {
    $x = ($x + 1) & 1023;
}
