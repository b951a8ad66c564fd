<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
$y = intval($t[0]);
echo (($y % 4 == 0 && $y % 100 != 0) || $y % 400 == 0) ? 'Yes' : 'No', "\n";
