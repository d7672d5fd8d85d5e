// Protocol messages.
