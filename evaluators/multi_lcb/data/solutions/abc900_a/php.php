<?php
$data = stream_get_contents(STDIN);
$t = preg_split('/\s+/', trim($data));
echo (intval($t[0]) + intval($t[1])), "\n";
