<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]);
$words = array_slice($t, 1, $n);
sort($words, SORT_STRING);
echo implode("\n", $words), "\n";
