/* The REVERSE_SUBSEQUENCES family's entry: its operator class, for lib/operator.c. */
#ifndef DMLCL_REVERSE_REVERSE_H
#define DMLCL_REVERSE_REVERSE_H
#include "core/op.h"

extern const dmlcl__op_class dmlcl__reverse_subsequences_class;
#endif
