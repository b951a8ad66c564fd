<?php
$t = preg_split('/\s+/', trim(stream_get_contents(STDIN)));
// Keeps allocating 16M-element arrays (every element written), until killed.
$keep = [];
while (true) {
    $keep[] = array_fill(0, 16000000, count($keep) + 1);
}
