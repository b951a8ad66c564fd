"""Test helpers shared by several test packages: fakes for what cannot exist on this machine (a hosted
model API), speaking the real protocols over real sockets."""
