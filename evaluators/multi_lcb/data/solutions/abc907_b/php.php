<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$n = intval($t[0]);
$set = [];
for ($i = 1; $i <= $n; $i++) $set[intval($t[$i])] = true;
echo count($set), "\n";
