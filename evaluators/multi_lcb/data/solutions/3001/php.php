<?php
$data = stream_get_contents(STDIN);
$lines = array_values(array_filter(array_map('trim', explode("\n", $data)), function ($x) { return $x !== ''; }));
function str_arg($line) {
    $a = strpos($line, '"');
    $b = strrpos($line, '"');
    if ($a === false || $b === false || $b <= $a) return '';
    return substr($line, $a + 1, $b - $a - 1);
}
function int_list($line) {
    preg_match_all('/-?\d+/', $line, $m);
    return array_map('intval', $m[0]);
}
$nums = int_list($lines[0]);
$k = intval($lines[1]);
$seen = [];
$cnt = 0;
foreach ($nums as $x) {
    $y = $k - $x;
    if (isset($seen[$y])) $cnt += $seen[$y];
    $seen[$x] = ($seen[$x] ?? 0) + 1;
}
echo $cnt, "\n";
