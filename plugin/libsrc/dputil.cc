/*
 *  Module:  dcmpcwt
 *
 *  Purpose: the module's logger.
 */

#include "dcmtk/config/osconfig.h"
#include "dcmpcwt/dputil.h"

OFLogger DCM_dcmpcwtLogger = OFLog::getLogger("dcmtk.dcmpcwt");
